// c4pi robot example: ask the Raspberry Pi for the best Connect Four move.
//
// Wiring (Arduino Uno, 5 V) through a 3.3 V <-> 5 V level shifter:
//   Pi pin 8  (GPIO14, TXD) -> shifter -> Arduino pin 10 (PI_RX below)
//   Pi pin 10 (GPIO15, RXD) <- shifter <- Arduino pin 11 (PI_TX below)
//   Pi pin 6  (GND)         -- Arduino GND (and the shifter's GND)
//   Pi pin 1  (3.3 V) -> shifter LV, Arduino 5 V -> shifter HV
//
// Protocol (c4pi SPEC §3): send "!" + the moves so far (digits 1-7, Red first)
// + "?". The Pi acknowledges at once with '!' (accepted) or '?' (invalid:
// full column, game already won, bad byte), then sends 4 characters "NxMM":
// N the column to play, x '+' win / '-' loss / '=' draw for the side to move,
// MM the plies left after that disc ("4+00" = winning move).
//
// Try it from the Serial Monitor (115200 baud, "Newline"): type the column of
// your move (1-7); the sketch asks the Pi, prints its answer and plays it.

#include <SoftwareSerial.h>

const uint8_t PI_RX = 10;                  // from the Pi's TXD
const uint8_t PI_TX = 11;                  // to the Pi's RXD
const unsigned long ACK_TIMEOUT_MS = 500;  // the Pi acknowledges within 100 ms
const unsigned long ANSWER_TIMEOUT_MS = 60000;
const uint8_t ATTEMPTS = 3;                // a lost or garbled answer: ask again, twice

SoftwareSerial pi(PI_RX, PI_TX);
char moves[43] = "";                       // at most 41 digits + room to spare
uint8_t nMoves = 0;

struct Answer {
  uint8_t column;   // 1-7
  char outcome;     // '+', '-' or '='
  uint8_t plies;    // plies left after the recommended disc
};

// Reads one byte within timeoutMs; returns -1 on timeout.
int readByte(unsigned long timeoutMs) {
  unsigned long start = millis();
  while (!pi.available()) {
    if (millis() - start >= timeoutMs) return -1;
  }
  return pi.read();
}

// Sends the query and parses the answer. Returns 0 on success, 1 when the Pi
// rejected the moves ('?'), 2 on a timeout or a malformed answer.
uint8_t askOnce(const char *sequence, Answer &answer) {
  while (pi.available()) pi.read();          // drop anything stale
  pi.write('!');
  pi.print(sequence);
  pi.write('?');
  int ack = readByte(ACK_TIMEOUT_MS);
  if (ack == '?') return 1;
  if (ack != '!') return 2;
  char text[4];
  for (uint8_t i = 0; i < 4; i++) {
    int c = readByte(ANSWER_TIMEOUT_MS);
    if (c < 0) return 2;
    text[i] = (char)c;
  }
  if (text[0] < '1' || text[0] > '7') return 2;
  if (text[1] != '+' && text[1] != '-' && text[1] != '=') return 2;
  if (text[2] < '0' || text[2] > '9' || text[3] < '0' || text[3] > '9') return 2;
  answer.column = text[0] - '0';
  answer.outcome = text[1];
  answer.plies = (text[2] - '0') * 10 + (text[3] - '0');
  return 0;
}

// askOnce, repeated while the answer is lost or garbled (the Pi restarting, a
// glitch on the wire): the same query again, at most ATTEMPTS times in all.
uint8_t askPi(const char *sequence, Answer &answer) {
  uint8_t status = 2;
  for (uint8_t attempt = 0; attempt < ATTEMPTS && status == 2; attempt++) {
    if (attempt) delay(200);
    status = askOnce(sequence, answer);
  }
  return status;
}

void addMove(uint8_t column) {
  if (nMoves < 42) {
    moves[nMoves++] = '0' + column;
    moves[nMoves] = '\0';
  }
}

void setup() {
  Serial.begin(115200);
  pi.begin(9600);                           // 9600 baud, 8N1, like the Pi
  Serial.println(F("c4pi robot: type your column (1-7), or 'n' for a new game"));
}

void loop() {
  if (!Serial.available()) return;
  char c = Serial.read();
  if (c == 'n') {
    nMoves = 0;
    moves[0] = '\0';
    Serial.println(F("new game"));
    return;
  }
  if (c < '1' || c > '7') return;
  addMove(c - '0');
  Answer answer;
  unsigned long start = millis();
  uint8_t status = askPi(moves, answer);
  if (status == 1) {
    Serial.print(F("the Pi rejected ")); Serial.println(moves);
    nMoves--;                               // undo the illegal move
    moves[nMoves] = '\0';
    return;
  }
  if (status == 2) {
    nMoves--;                               // not kept: the move list stays as it was
    moves[nMoves] = '\0';
    Serial.println(F("no valid answer from the Pi: check wiring and `c4pi serve`; "
                     "your move was not kept, type it again"));
    return;
  }
  Serial.print(F("Pi plays column ")); Serial.print(answer.column);
  Serial.print(answer.outcome == '+' ? F(", it wins") :
               answer.outcome == '-' ? F(", it loses") : F(", draw"));
  Serial.print(F(" with ")); Serial.print(answer.plies);
  Serial.print(F(" plies to go (")); Serial.print(millis() - start); Serial.println(F(" ms)"));
  addMove(answer.column);
  if (answer.plies == 0) Serial.println(F("game over, 'n' for a new game"));
}
