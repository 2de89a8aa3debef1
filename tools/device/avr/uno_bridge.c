// uno_bridge: run an Arduino Uno program (ELF) in simavr with its two serial
// links on pseudo-terminals, in real time.
//
//   uno_bridge FIRMWARE.elf
//
// prints two lines and keeps running until killed:
//   console /dev/pts/N    UART0 (the sketch's Serial, the Serial Monitor)
//   pilink  /dev/pts/M    the SoftwareSerial link on pins 10 (RX) / 11 (TX)
//
// UART0 is carried byte by byte (simavr's UART model, with its flow control).
// The SoftwareSerial link is carried bit by bit at 9600 8N1: pin 11 (PB3) is
// sampled in the middle of each bit the sketch sends, pin 10 (PB2) is driven
// with the bits of the bytes the Pi sends. Simulated time is held to wall time,
// so the sketch's millis() timeouts and the Pi's timing meet as on a bench.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"

#define FREQUENCY 16000000UL
#define BAUD 9600
#define PI_RX_BIT 2 /* Arduino pin 10 = PB2: the sketch reads the Pi here */
#define PI_TX_BIT 3 /* Arduino pin 11 = PB3: the sketch writes to the Pi here */
#define POLL_CYCLES (FREQUENCY / 2000) /* ptys polled and clocks synced every 0.5 ms */
#define QUEUE 4096

typedef struct {
    int master, slave;
    char name[64];
} pty_t;

typedef struct {
    unsigned char data[QUEUE];
    unsigned head, tail;
} queue_t;

static avr_t *avr;
static pty_t console, pilink;
static queue_t to_console_uart, to_pin;
static int uart_xon = 1;
static avr_irq_t *uart_input, *pin_rx;

static double bit_cycles(void) { return (double)FREQUENCY / BAUD; }

static int queue_push(queue_t *q, unsigned char c) {
    if (q->head - q->tail >= QUEUE) return 0;
    q->data[q->head++ % QUEUE] = c;
    return 1;
}

static int queue_pop(queue_t *q, unsigned char *c) {
    if (q->head == q->tail) return 0;
    *c = q->data[q->tail++ % QUEUE];
    return 1;
}

static void open_pty(pty_t *p) {
    struct termios raw;
    if (openpty(&p->master, &p->slave, p->name, NULL, NULL) < 0) {
        perror("openpty");
        exit(1);
    }
    tcgetattr(p->slave, &raw);
    cfmakeraw(&raw);
    tcsetattr(p->slave, TCSANOW, &raw);
    fcntl(p->master, F_SETFL, fcntl(p->master, F_GETFL) | O_NONBLOCK);
}

static void write_all(int fd, const unsigned char *data, size_t size) {
    while (size) {
        ssize_t done = write(fd, data, size);
        if (done < 0 && errno != EINTR) return; /* nobody listening: the byte is lost */
        if (done > 0) {
            data += done;
            size -= (size_t)done;
        }
    }
}

/* ------------------------------------------------------------ UART0 <-> console */

static void on_uart_output(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq, (void)param;
    unsigned char c = (unsigned char)value;
    write_all(console.master, &c, 1);
}

static void on_uart_xon(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq, (void)value, (void)param;
    uart_xon = 1;
}

static void on_uart_xoff(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq, (void)value, (void)param;
    uart_xon = 0;
}

static void feed_uart(void) {
    unsigned char c;
    while (uart_xon && queue_pop(&to_console_uart, &c)) avr_raise_irq(uart_input, c);
}

/* ------------------------------------------------------------ pin 11 -> Pi link */

static int tx_level = 1, tx_busy = 0, tx_bit = 0;
static unsigned tx_byte = 0;

static avr_cycle_count_t sample_tx(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a, (void)param;
    if (tx_bit < 8) {
        tx_byte |= (unsigned)tx_level << tx_bit;
        tx_bit++;
        return when + (avr_cycle_count_t)bit_cycles();
    }
    if (tx_level) { /* a valid stop bit: the byte goes to the Pi */
        unsigned char c = (unsigned char)tx_byte;
        write_all(pilink.master, &c, 1);
    }
    tx_busy = 0;
    return 0;
}

static void on_tx_pin(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq, (void)param;
    int level = value ? 1 : 0;
    if (tx_level && !level && !tx_busy) { /* falling edge of a start bit */
        tx_busy = 1;
        tx_bit = 0;
        tx_byte = 0;
        avr_cycle_timer_register(avr, (avr_cycle_count_t)(1.5 * bit_cycles()), sample_tx, NULL);
    }
    tx_level = level;
}

/* ------------------------------------------------------------ Pi link -> pin 10 */

static int rx_busy = 0, rx_bit = 0;
static unsigned char rx_byte;
static avr_cycle_count_t rx_start;

static avr_cycle_count_t drive_rx(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a, (void)param, (void)when;
    rx_bit++;
    if (rx_bit <= 8) {
        avr_raise_irq(pin_rx, (rx_byte >> (rx_bit - 1)) & 1);
    } else if (rx_bit == 9) {
        avr_raise_irq(pin_rx, 1); /* stop bit */
    } else {
        rx_busy = 0; /* the stop bit has lasted one bit time */
        return 0;
    }
    return rx_start + (avr_cycle_count_t)((rx_bit + 1) * bit_cycles());
}

static void feed_pin(void) {
    if (rx_busy || !queue_pop(&to_pin, &rx_byte)) return;
    rx_busy = 1;
    rx_bit = 0;
    rx_start = avr->cycle;
    avr_raise_irq(pin_rx, 0); /* start bit */
    avr_cycle_timer_register(avr, (avr_cycle_count_t)bit_cycles(), drive_rx, NULL);
}

/* ------------------------------------------------------------ the loop */

static void poll_ptys(void) {
    unsigned char buffer[256];
    ssize_t got;
    while ((got = read(console.master, buffer, sizeof buffer)) > 0)
        for (ssize_t i = 0; i < got; i++) queue_push(&to_console_uart, buffer[i]);
    while ((got = read(pilink.master, buffer, sizeof buffer)) > 0)
        for (ssize_t i = 0; i < got; i++) queue_push(&to_pin, buffer[i]);
    feed_uart();
    feed_pin();
}

static double wall_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIRMWARE.elf\n", argv[0]);
        return 2;
    }
    elf_firmware_t firmware;
    memset(&firmware, 0, sizeof firmware);
    if (elf_read_firmware(argv[1], &firmware) != 0) {
        fprintf(stderr, "uno_bridge: cannot read %s\n", argv[1]);
        return 1;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) return 1;
    avr_init(avr);
    firmware.frequency = FREQUENCY;
    avr_load_firmware(avr, &firmware);
    avr->frequency = FREQUENCY;
    avr->log = LOG_ERROR;

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~AVR_UART_FLAG_STDIO;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            on_uart_output, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            on_uart_xon, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            on_uart_xoff, NULL);
    uart_input = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), PI_TX_BIT),
                            on_tx_pin, NULL);
    pin_rx = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), PI_RX_BIT);
    avr_raise_irq(pin_rx, 1); /* an idle line is high */

    open_pty(&console);
    open_pty(&pilink);
    printf("console %s\npilink %s\n", console.name, pilink.name);
    fflush(stdout);
    signal(SIGPIPE, SIG_IGN);

    double start = wall_seconds();
    avr_cycle_count_t next_poll = 0;
    for (;;) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, "uno_bridge: the program stopped (state %d)\n", state);
            return 1;
        }
        if (avr->cycle >= next_poll) {
            next_poll = avr->cycle + POLL_CYCLES;
            poll_ptys();
            double ahead = (double)avr->cycle / FREQUENCY - (wall_seconds() - start);
            if (ahead > 0.001) usleep((useconds_t)(ahead * 1e6));
        }
    }
}
