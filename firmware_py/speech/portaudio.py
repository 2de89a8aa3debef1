"""The PortAudio seam: what c4pi uses of the ``pyaudio`` module, as Protocols.

``pyaudio`` ships no types; :class:`~firmware_py.speech.sinks.PyAudioSink` and
:func:`~firmware_py.speech.sinks.probe_outputs` take the real module or a fake
(``tests/speech``) through :class:`PortAudioModule`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

# PortAudio's device description: name, channels, rates, index (values of several types)
DeviceInfo = Mapping[str, object]
# the stream's callback: (input, frame count, time info, status) -> (output bytes, flag)
StreamCallback = Callable[[bytes | None, int, object, int], tuple[bytes, int]]


class PortAudioStream(Protocol):
    """An open output stream."""

    def start_stream(self) -> None: ...
    def is_active(self) -> bool: ...
    def stop_stream(self) -> None: ...
    def close(self) -> None: ...


class PortAudio(Protocol):
    """``pyaudio.PyAudio()``: the devices and the streams."""

    def get_device_count(self) -> int: ...
    def get_device_info_by_index(self, index: int) -> DeviceInfo: ...
    def get_default_output_device_info(self) -> DeviceInfo: ...
    def is_format_supported(self, rate: float, *, output_device: int, output_channels: int,
                            output_format: int) -> bool: ...
    def open(self, *, format: int, channels: int, rate: int, output: bool,
             output_device_index: int | None, frames_per_buffer: int,
             stream_callback: StreamCallback) -> PortAudioStream: ...
    def terminate(self) -> None: ...


class PortAudioModule(Protocol):
    """The ``pyaudio`` module: the sample format and callback flag, and PortAudio."""

    paInt16: int
    paContinue: int

    def PyAudio(self) -> PortAudio: ...  # noqa: N802 (pyaudio's name)
