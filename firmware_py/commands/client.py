"""``c4pi client``: send one query the way the robot does (for bench-testing the wiring)."""

from __future__ import annotations

import argparse

from firmware_py.config import Config
from firmware_py.serial_link.transport import baud_rates

EXIT_REJECTED = 3
EXIT_NO_REPLY = 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "client", help="send one robot query over a serial port and print the reply",
        description="Send !MOVES? like the Arduino robot, print the acknowledgement, the "
                    "answer and the latency. Exit 0 when answered, 3 when the query was "
                    "rejected (?), 1 when nothing (or garbage) came back.")
    parser.add_argument("moves", nargs="?", default="", metavar="MOVES",
                        help="the moves so far, digits 1-7 (default: empty board); sent as is")
    parser.add_argument("--port", metavar="DEV",
                        help="serial device (default: [serial] port of the config)")
    parser.add_argument("--baud", type=int, choices=baud_rates(), metavar="BAUD",
                        help="baud rate (default: [serial] baud)")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="S",
                        help="seconds to wait for the answer (default 30)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, config: Config) -> int:
    from c4game.exc import SerialPortError
    from firmware_py.serial_link.robot import RobotClient

    device = args.port or config.serial.port
    baud = args.baud or config.serial.baud
    frame = b"!" + args.moves.encode("utf-8", "replace") + b"?"
    try:
        with RobotClient(device, baud) as robot:
            robot.discard_input()
            result = robot.query(args.moves, args.timeout, raw=frame)
    except SerialPortError as error:
        print(f"c4pi client: {error}")
        return EXIT_NO_REPLY
    print(f"sent    {frame.decode('utf-8', 'replace')}  ({device}, {baud} baud)")
    if not result.ack:
        print(f"ack     none within {min(args.timeout, 5.0):g} s: check the wiring, the port "
              "and that the service runs")
        return EXIT_NO_REPLY
    print(f"ack     {result.ack}  {result.ack_ms:.1f} ms")
    if result.ack == "?":
        print("        the query was rejected (invalid, full column or game over)")
        return EXIT_REJECTED
    if result.ack != "!":
        print("        not an acknowledgement")
        return EXIT_NO_REPLY
    if not result.ok:
        print(f"answer  {result.answer!r}: incomplete after {args.timeout:g} s")
        return EXIT_NO_REPLY
    meaning = _explain(args.moves, result.answer)
    print(f"answer  {result.answer}  {result.answer_ms:.1f} ms  ({meaning})")
    return 0


def _explain(moves: str, answer: str) -> str:
    """``play column 4: Yellow wins in 13; the robot's 12 counts the discs after this one``."""
    from c4game.board import COLOUR_NAMES, other
    from firmware_py.serial_link.protocol import check_moves

    board, _ = check_moves(moves)
    if board is None or answer[1] not in "+-=" or not answer[2:].isdigit():
        return f"play column {answer[0]}"
    plies = int(answer[2:]) + 1
    winner = {"+": board.to_move, "-": other(board.to_move)}.get(answer[1])
    said = f"{COLOUR_NAMES[winner]} wins in {plies}" if winner else f"Draw in {plies}"
    return (f"play column {answer[0]}: {said}; the robot's {answer[2:]} counts the discs "
            f"after this one")
