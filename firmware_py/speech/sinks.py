"""Audio sinks: where the mixed PCM goes.

A sink pulls int16 mono frames from a *source* (``source(frames) -> ndarray``,
normally :meth:`Mixer.render`) and sends them on:

- :class:`PyAudioSink`: the speaker, through a PortAudio callback stream. The
  device is chosen by name (a case-insensitive part of it) or index. A device
  that is missing, fails to open or stops delivering callbacks (an unplugged
  USB speaker) is logged and reopened with exponential backoff, never fatal.
- :class:`~firmware_py.speech.wav_sink.WavSink` (its own module): a WAV file,
  written in real time (or as fast as possible).
- :class:`NullSink`: discards the frames in real time (headless machines).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import logging
import os
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator

import numpy as np

from c4game.exc import AudioError
from firmware_py.backoff import Backoff
from firmware_py.speech.portaudio import PortAudio, PortAudioModule, PortAudioStream

log = logging.getLogger(__name__)

Source = Callable[[int], np.ndarray]
FALLBACK_RATES = (48000, 44100)


class AudioSink(ABC):
    """Pulls frames from a source once started; ``close`` stops it for good."""

    def __init__(self) -> None:
        self.ready = threading.Event()   # set once frames flow
        self.frames_written = 0
        self.source_errors = 0

    def _pull(self, source: Source, frames: int) -> np.ndarray:
        """``frames`` from ``source``; silence (logged once) if it fails."""
        try:
            data = source(frames)
        except Exception:
            self.source_errors += 1
            if self.source_errors == 1:
                log.exception("audio source failed; playing silence")
            return np.zeros(frames, dtype=np.int16)
        self.frames_written += frames
        return data

    def supported_rate(self, preferred: int) -> int:
        """The output rate to use when the clips come at ``preferred`` Hz."""
        return preferred

    @abstractmethod
    def start(self, source: Source, rate: int) -> None:
        """Begin pulling ``source`` at ``rate`` frames per second (returns at once)."""

    @abstractmethod
    def close(self) -> None:
        """Stop pulling and release the output (idempotent)."""


# --- paced sinks (no audio hardware) -------------------------------------------


class PacedSink(AudioSink):
    """Pulls blocks on a thread at the audio rate (``realtime``) or as fast as possible."""

    def __init__(self, *, block_frames: int = 1024, realtime: bool = True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        if block_frames < 1:
            raise ValueError(f"block_frames {block_frames!r} must be positive")
        self.block_frames = block_frames
        self.realtime = realtime
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, source: Source, rate: int) -> None:
        if self._thread is not None:
            raise AudioError(f"{type(self).__name__} already started")
        self._open(rate)
        self._thread = threading.Thread(target=self._loop, args=(source, rate),
                                        name=f"c4pi-{type(self).__name__}", daemon=True)
        self._thread.start()

    def _loop(self, source: Source, rate: int) -> None:
        deadline = self._clock()
        self.ready.set()
        while not self._stop.is_set():
            self._write(self._pull(source, self.block_frames))
            if not self.realtime:
                continue
            deadline += self.block_frames / rate
            delay = deadline - self._clock()
            if delay > 0:
                self._stop.wait(delay)
            elif delay < -1.0:          # fell far behind (suspended?): resynchronise
                deadline = self._clock()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self._finish()

    def _open(self, rate: int) -> None:
        """Prepare the output (before the thread starts)."""

    @abstractmethod
    def _write(self, frames: np.ndarray) -> None:
        """Consume one block."""

    def _finish(self) -> None:
        """Release the output (after the thread ended)."""


class NullSink(PacedSink):
    """Discards the audio, pulled at the real-time rate: speech without a speaker."""

    peak = 0  # the loudest sample discarded

    def _write(self, frames: np.ndarray) -> None:
        if len(frames):
            self.peak = max(self.peak, int(np.max(np.abs(frames.astype(np.int32)))))


# --- PortAudio -----------------------------------------------------------------


def output_devices(pa: PortAudio) -> list[tuple[int, str, int]]:
    """(index, name, default rate) of every PortAudio device with an output."""
    devices = []
    for index in range(pa.get_device_count()):
        info = pa.get_device_info_by_index(index)
        if _number(info.get("maxOutputChannels", 0)) > 0:
            devices.append((index, str(info["name"]),
                            int(_number(info.get("defaultSampleRate", 0)))))
    return devices


def find_output_device(pa: PortAudio, spec: str) -> int | None:
    """The device index for ``spec``: "" = default (None), a number, or part of a name."""
    spec = spec.strip()
    if not spec:
        return None
    devices = output_devices(pa)
    if spec.isdigit():
        if any(index == int(spec) for index, _, _ in devices):
            return int(spec)
    else:
        for index, name, _ in devices:
            if spec.lower() in name.lower():
                return index
    listing = ", ".join(f"{index}: {name!r}" for index, name, _ in devices) or "none"
    raise AudioError(f"no audio output device matches {spec!r} (outputs: {listing})")


_ALSA_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                 ctypes.c_int, ctypes.c_char_p)


_JACK_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_char_p)


@functools.cache
def quiet_audio_libraries() -> tuple[object, ...]:
    """Silence the stderr chatter of alsa-lib and libjack (PortAudio's device probing
    prints dozens of lines on every initialisation; c4pi logs what matters).
    Returns the installed handlers, which the cache keeps alive for the C libraries."""
    handlers: list[object] = []
    for library_name, setters, kind in (
            ("asound", ("snd_lib_error_set_handler",), _ALSA_HANDLER),
            ("jack", ("jack_set_error_function", "jack_set_info_function"), _JACK_HANDLER)):
        path = ctypes.util.find_library(library_name)
        if path is None:
            continue
        try:
            library = ctypes.CDLL(path)
            handler = kind(lambda *args: None)
            for setter in setters:
                getattr(library, setter)(handler)
        except (OSError, AttributeError) as error:
            log.debug("cannot quieten %s: %s", library_name, error)
            continue
        handlers.append(handler)
    return tuple(handlers)


@contextlib.contextmanager
def stderr_silenced() -> Iterator[None]:
    """File descriptor 2 goes to /dev/null inside the block, then back where it was.

    For PortAudio's device probing, whose C libraries (alsa-lib, libjack, their
    plugins) print dozens of lines straight to the descriptor. Only for short,
    single-threaded probes: another thread's log lines would be lost meanwhile.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def probe_outputs(pyaudio_module: PortAudioModule | None = None
                  ) -> tuple[list[tuple[int, str, int]], int | None]:
    """PortAudio's output devices (:func:`output_devices`) and the default one's index
    (None: no default), probed with the C libraries' stderr silenced. No devices when
    PortAudio cannot start at all (no sound card, no ALSA)."""
    portaudio = _portaudio(pyaudio_module)
    failure = ""
    devices: list[tuple[int, str, int]] = []
    default: int | None = None
    with stderr_silenced():
        try:
            pa = portaudio.PyAudio()
        except Exception as error:       # PortAudio itself failed to initialise
            failure = str(error)
        else:
            try:
                devices = output_devices(pa)
                default = _default_output(pa)
            finally:
                pa.terminate()
    if failure:
        log.debug("PortAudio did not start: %s", failure)
    return devices, default


def _portaudio(module: PortAudioModule | None) -> PortAudioModule:
    """``module``, or the real PortAudio binding (its C libraries' chatter silenced)."""
    if module is not None:
        return module
    import pyaudio  # the real PortAudio binding (untyped: taken as the Protocol)

    quiet_audio_libraries()
    real: PortAudioModule = pyaudio
    return real


def _default_output(pa: PortAudio) -> int | None:
    try:
        return int(_number(pa.get_default_output_device_info()["index"]))
    except (OSError, KeyError, TypeError, ValueError):
        return None


def _number(value: object) -> float:
    """A number of PortAudio's device description (ValueError when it is none)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"not a number: {value!r}")
    return float(value)


class PyAudioSink(AudioSink):
    """The speaker through a PyAudio (PortAudio) callback stream, reopened when it fails."""

    def __init__(self, device: str = "", *, frames_per_buffer: int = 1024,
                 pyaudio_module: PortAudioModule | None = None, retry_min_s: float = 0.5,
                 retry_max_s: float = 10.0, stall_s: float = 2.0) -> None:
        super().__init__()
        self.device = device
        self.frames_per_buffer = frames_per_buffer
        self._pa_module = _portaudio(pyaudio_module)
        self._retry = (retry_min_s, retry_max_s)
        self._stall_s = stall_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._source: Source | None = None
        self._rate = 0
        self._pa: PortAudio | None = None
        self._stream: PortAudioStream | None = None
        self._last_callback = 0.0
        self.opens = 0                   # successful (re)opens
        self.last_error = ""

    def supported_rate(self, preferred: int) -> int:
        try:
            pa = self._pa_module.PyAudio()
        except Exception as error:       # PortAudio itself failed to initialise
            log.warning("PortAudio unavailable (%s); assuming %d Hz", error, preferred)
            return preferred
        try:
            index = find_output_device(pa, self.device)
            if index is None:
                index = int(_number(pa.get_default_output_device_info()["index"]))
            for rate in (preferred, *FALLBACK_RATES):
                if self._rate_ok(pa, index, rate):
                    return rate
            log.warning("audio device %r takes none of %s Hz; trying %d",
                        self.device or "default", (preferred, *FALLBACK_RATES), preferred)
        except (AudioError, OSError, ValueError) as error:
            log.warning("cannot query audio device %r (%s); assuming %d Hz",
                        self.device or "default", error, preferred)
        finally:
            pa.terminate()
        return preferred

    def _rate_ok(self, pa: PortAudio, index: int, rate: int) -> bool:
        try:
            return bool(pa.is_format_supported(rate, output_device=index, output_channels=1,
                                               output_format=self._pa_module.paInt16))
        except ValueError:
            return False

    def start(self, source: Source, rate: int) -> None:
        if self._thread is not None:
            raise AudioError("PyAudioSink already started")
        self._source, self._rate = source, rate
        self._thread = threading.Thread(target=self._supervise, name="c4pi-audio", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10.0)

    # --- the supervisor thread ---------------------------------------------------

    def _supervise(self) -> None:
        backoff = Backoff(*self._retry)
        while not self._stop.is_set():
            try:
                self._open_stream()
            except Exception as error:       # PortAudio raises OSError, lookups AudioError
                self._close_stream()
                delay = backoff.next()
                repeated = str(error) == self.last_error
                self.last_error = str(error)
                log.log(logging.DEBUG if repeated else logging.WARNING,
                        "audio output %r unavailable (%s); retrying in %.1f s%s",
                        self.device or "default", error, delay,
                        " (further identical failures logged at debug level)"
                        if not repeated else "")
                self._stop.wait(delay)
                continue
            backoff.reset()
            self.opens += 1
            self.ready.set()
            self._watch()
            self._close_stream()

    def _open_stream(self) -> None:
        self._pa = pa = self._pa_module.PyAudio()
        index = find_output_device(pa, self.device)
        self._last_callback = time.monotonic()
        self._stream = stream = pa.open(
            format=self._pa_module.paInt16, channels=1, rate=self._rate, output=True,
            output_device_index=index, frames_per_buffer=self.frames_per_buffer,
            stream_callback=self._callback)
        stream.start_stream()
        log.info("audio output open: %r at %d Hz", self.device or "default", self._rate)

    def _watch(self) -> None:
        while not self._stop.wait(0.2):
            try:
                active = self._stream is not None and self._stream.is_active()
            except Exception as error:
                log.warning("audio stream failed (%s); reopening", error)
                return
            if not active:
                log.warning("audio stream stopped; reopening")
                return
            if time.monotonic() - self._last_callback > self._stall_s:
                log.warning("audio stream stalled for %.1f s; reopening", self._stall_s)
                return

    def _close_stream(self) -> None:
        stream, pa = self._stream, self._pa
        self._stream = self._pa = None
        actions: list[Callable[[], None]] = []
        if stream is not None:
            actions += [stream.stop_stream, stream.close]
        if pa is not None:
            actions.append(pa.terminate)
        for action in actions:
            try:
                action()
            except Exception as error:   # a vanished device fails to close too
                log.debug("closing audio output: %s", error)

    def _callback(self, in_data: bytes | None, frame_count: int, time_info: object,
                  status: int) -> tuple[bytes, int]:
        self._last_callback = time.monotonic()
        assert self._source is not None
        data = self._pull(self._source, frame_count)
        return data.astype("<i2").tobytes(), self._pa_module.paContinue
