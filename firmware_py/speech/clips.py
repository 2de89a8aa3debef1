"""Speech clips: rendered once with espeak-ng, checked, and loaded into memory.

``build_clips`` renders every phrase of :func:`~firmware_py.speech.phrases.catalogue`
into ``<dir>/<name>.wav`` (mono 16-bit, espeak's 22050 Hz), trimmed of the
silence espeak adds around words and normalised to a common peak, then writes
``manifest.json`` last: the settings used, and each clip's text, length and
SHA-256. ``check_clips`` compares a directory with the manifest and the
current settings; ``load_clips`` returns a :class:`ClipSet` (all samples in
memory, so nothing touches the disk while speaking) or raises
:class:`~c4game.exc.AudioError` naming the bad clip. ``ensure_clips``
re-renders a missing, stale or corrupt set.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import subprocess
import tempfile
import wave
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from c4game.exc import AudioError
from c4game.files import write_whole
from firmware_py.config import SpeechConfig, resolve_path
from firmware_py.speech.phrases import Phrase, catalogue

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
FORMAT = 1
FAST_FACTOR = 1.5
PEAK = 0.65            # every clip is normalised to this peak (full scale 1.0)
TRIM_THRESHOLD = 0.01  # samples quieter than this at either end are silence
TRIM_PAD_S = 0.01      # silence kept at each end after trimming
JOIN_GAP_S = 0.04      # silence between the clips of one announcement
JOINED_KEPT = 16       # joined announcements kept (the few of the current position)


@dataclass(frozen=True)
class ClipSettings:
    """What the clips are rendered with (from ``[speech]``)."""

    voice: str = "en-us"
    pitch: int = 50
    speed_wpm: int = 160

    @property
    def fast_wpm(self) -> int:
        """espeak speed of the distance-channel clips (1.5x)."""
        return round(self.speed_wpm * FAST_FACTOR)

    @classmethod
    def from_config(cls, config: SpeechConfig) -> ClipSettings:
        return cls(voice=config.voice, pitch=config.pitch, speed_wpm=config.speed_wpm)

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "fast_wpm": self.fast_wpm}


def default_clip_dir(config: SpeechConfig) -> Path:
    """``clip_dir`` from config, else ``$STATE_DIRECTORY/clips`` or ``~/.cache/c4pi/clips``."""
    if config.clip_dir:
        return resolve_path(config.clip_dir)
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return Path(state.split(":")[0]) / "clips"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "c4pi" / "clips"


class ClipSet:
    """Clips in memory as float32 arrays in [-1, 1] at one sample rate."""

    def __init__(self, clips: Mapping[str, np.ndarray], rate: int) -> None:
        self.rate = rate
        self._clips = {name: _frozen(np.asarray(data, dtype=np.float32))
                       for name, data in clips.items()}
        self._joined: OrderedDict[tuple[str, ...], np.ndarray] = OrderedDict()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._clips)

    def __contains__(self, name: object) -> bool:
        return name in self._clips

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._clips[name]
        except KeyError:
            raise AudioError(f"no clip {name!r} in the clip set") from None

    def join(self, names: tuple[str, ...]) -> np.ndarray:
        """The clips ``names`` back to back, ``JOIN_GAP_S`` of silence between them."""
        joined = self._joined.get(names)
        if joined is not None:
            self._joined.move_to_end(names)
        else:
            gap = np.zeros(round(JOIN_GAP_S * self.rate), dtype=np.float32)
            parts: list[np.ndarray] = []
            for index, name in enumerate(names):
                if index:
                    parts.append(gap)
                parts.append(self[name])
            joined = _frozen(np.concatenate(parts) if parts else gap[:0])
            self._joined[names] = joined
            if len(self._joined) > JOINED_KEPT:    # bounded: a long game says many numbers
                self._joined.popitem(last=False)
        return joined

    def duration(self, names: tuple[str, ...]) -> float:
        """Seconds that :meth:`join` of ``names`` lasts."""
        return len(self.join(names)) / self.rate

    def resampled(self, rate: int) -> ClipSet:
        """The same clips at another sample rate (linear interpolation)."""
        if rate == self.rate:
            return self
        return ClipSet({name: _resample(data, self.rate, rate)
                        for name, data in self._clips.items()}, rate)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _resample(data: np.ndarray, rate_in: int, rate_out: int) -> np.ndarray:
    n_out = max(1, round(len(data) * rate_out / rate_in))
    positions = np.arange(n_out) * (rate_in / rate_out)
    return np.interp(positions, np.arange(len(data)), data).astype(np.float32)


# --- rendering ---------------------------------------------------------------


def espeak_version(espeak: str = "espeak-ng") -> str:
    """``espeak-ng --version`` (first line); AudioError when espeak-ng is missing."""
    try:
        done = subprocess.run([espeak, "--version"], capture_output=True, text=True,
                              timeout=30, check=False)
    except FileNotFoundError:
        raise AudioError(f"{espeak!r} not found: install espeak-ng (setup.sh does) "
                         "to render the speech clips") from None
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else "unknown"


def render_phrase(phrase: Phrase, settings: ClipSettings, espeak: str = "espeak-ng"
                  ) -> tuple[np.ndarray, int]:
    """Render one phrase with espeak-ng: (trimmed, normalised float32 samples, rate)."""
    speed = settings.fast_wpm if phrase.fast else settings.speed_wpm
    with tempfile.TemporaryDirectory(prefix="c4pi-espeak-") as tmp:
        out = Path(tmp) / "clip.wav"
        command = [espeak, "-v", settings.voice, "-p", str(settings.pitch), "-s", str(speed),
                   "-w", str(out), "--", phrase.text]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=60,
                                  check=False)
        except FileNotFoundError:
            raise AudioError(f"{espeak!r} not found: install espeak-ng (setup.sh does) "
                             "to render the speech clips") from None
        if done.returncode != 0 or not out.is_file():
            message = (done.stderr or done.stdout).strip() or f"exit status {done.returncode}"
            raise AudioError(f"espeak-ng failed on clip {phrase.name!r} ({phrase.text!r}, "
                             f"voice {settings.voice!r}): {message}")
        samples, rate = read_wav(out)
    processed = _trim_and_normalise(samples, rate)
    if processed is None:
        raise AudioError(f"espeak-ng rendered silence for clip {phrase.name!r} "
                         f"({phrase.text!r}, voice {settings.voice!r})")
    return processed, rate


def _trim_and_normalise(samples: np.ndarray, rate: int) -> np.ndarray | None:
    loud = np.flatnonzero(np.abs(samples) >= TRIM_THRESHOLD)
    if len(loud) == 0:
        return None
    pad = round(TRIM_PAD_S * rate)
    start, end = max(0, loud[0] - pad), min(len(samples), loud[-1] + 1 + pad)
    trimmed = samples[start:end]
    return (trimmed * (PEAK / float(np.max(np.abs(trimmed))))).astype(np.float32)


def build_clips(directory: str | os.PathLike[str], settings: ClipSettings, *,
                espeak: str = "espeak-ng", jobs: int = 4,
                phrases: Iterable[Phrase] | None = None) -> dict[str, object]:
    """Render every phrase into ``directory`` (replacing its clips); returns the manifest."""
    phrases = tuple(catalogue() if phrases is None else phrases)
    version = espeak_version(espeak)
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    (target / MANIFEST).unlink(missing_ok=True)   # the set is invalid until complete
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        rendered = list(pool.map(lambda p: render_phrase(p, settings, espeak), phrases))
    rates = {rate for _, rate in rendered}
    if len(rates) != 1:
        raise AudioError(f"espeak-ng rendered mixed sample rates {sorted(rates)}")
    clips: dict[str, dict[str, object]] = {}
    for phrase, (samples, rate) in zip(phrases, rendered, strict=True):
        path = target / f"{phrase.name}.wav"
        write_wav(path, samples, rate)
        clips[phrase.name] = {"text": phrase.text, "fast": phrase.fast, "file": path.name,
                              "frames": len(samples), "sha256": _sha256(path)}
    manifest = {"format": FORMAT, "settings": settings.as_dict(), "rate": rates.pop(),
                "espeak": version, "clips": clips}
    write_whole(target / MANIFEST, (json.dumps(manifest, indent=1) + "\n").encode("utf-8"))
    log.info("rendered %d speech clips into %s", len(clips), target)
    return manifest


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- checking and loading ----------------------------------------------------


def read_manifest(directory: str | os.PathLike[str]) -> dict[str, object]:
    """The manifest of a clip directory; AudioError when missing or unreadable."""
    path = Path(directory) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise AudioError(f"no speech clips in {directory} (no {MANIFEST}): "
                         "run `c4pi clips build`") from None
    except (OSError, ValueError) as error:
        raise AudioError(f"{path}: unreadable clip manifest ({error}): "
                         "run `c4pi clips build`") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise AudioError(f"{path}: not a clip manifest of format {FORMAT}: "
                         "run `c4pi clips build`")
    return manifest


def check_clips(directory: str | os.PathLike[str], settings: ClipSettings,
                phrases: Iterable[Phrase] | None = None) -> list[str]:
    """Problems with the clip set in ``directory`` (empty when it is complete and current)."""
    try:
        manifest = read_manifest(directory)
    except AudioError as error:
        return [str(error)]
    problems = []
    if manifest.get("settings") != settings.as_dict():
        problems.append(f"clips in {directory} were rendered with {manifest.get('settings')}, "
                        f"the config asks for {settings.as_dict()}")
    entries = manifest.get("clips") or {}
    for phrase in catalogue() if phrases is None else phrases:
        entry = entries.get(phrase.name)
        if entry is None:
            problems.append(f"clip {phrase.name!r} ({phrase.text!r}) is missing")
        elif (entry.get("text"), entry.get("fast")) != (phrase.text, phrase.fast):
            problems.append(f"clip {phrase.name!r} was rendered from {entry.get('text')!r}, "
                            f"expected {phrase.text!r}")
        else:
            problem = _check_file(Path(directory), phrase.name, entry)
            if problem:
                problems.append(problem)
    return problems


def _check_file(directory: Path, name: str, entry: Mapping[str, object]) -> str | None:
    path = directory / str(entry.get("file"))
    try:
        digest = _sha256(path)
    except OSError as error:
        return f"clip {name!r}: cannot read {path} ({error.strerror})"
    if digest != entry.get("sha256"):
        return f"clip {name!r}: {path} is corrupt (checksum mismatch)"
    return None


def load_clips(directory: str | os.PathLike[str], settings: ClipSettings,
               phrases: Iterable[Phrase] | None = None) -> ClipSet:
    """Load a complete, current clip set into memory; AudioError naming each problem."""
    phrases = tuple(catalogue() if phrases is None else phrases)
    problems = check_clips(directory, settings, phrases)
    if problems:
        raise AudioError(f"speech clips in {directory} unusable: " + "; ".join(problems))
    manifest = read_manifest(directory)
    rate = int(manifest["rate"])  # type: ignore[arg-type]
    entries: dict = manifest["clips"]  # type: ignore[assignment]
    clips = {}
    for phrase in phrases:
        entry = entries[phrase.name]
        path = Path(directory) / entry["file"]
        samples, file_rate = read_wav(path)
        if file_rate != rate or len(samples) != entry["frames"] or len(samples) == 0:
            raise AudioError(f"clip {phrase.name!r}: {path} has {len(samples)} frames at "
                             f"{file_rate} Hz, the manifest says {entry['frames']} at {rate} Hz")
        clips[phrase.name] = samples
    return ClipSet(clips, rate)


def ensure_clips(directory: str | os.PathLike[str], settings: ClipSettings, *,
                 espeak: str = "espeak-ng") -> ClipSet:
    """Load the clip set, rendering it first when it is missing, stale or corrupt."""
    problems = check_clips(directory, settings)
    if problems:
        log.warning("speech clips need rendering: %s", problems[0])
        build_clips(directory, settings, espeak=espeak)
    return load_clips(directory, settings)


# --- WAV files ---------------------------------------------------------------


def read_wav(path: str | os.PathLike[str]) -> tuple[np.ndarray, int]:
    """A mono 16-bit WAV file as float32 samples in [-1, 1] and its rate."""
    try:
        with wave.open(str(path), "rb") as handle:
            if handle.getnchannels() != 1 or handle.getsampwidth() != 2:
                raise AudioError(f"{path}: expected mono 16-bit PCM, got "
                                 f"{handle.getnchannels()} channel(s) of "
                                 f"{8 * handle.getsampwidth()} bits")
            frames = handle.readframes(handle.getnframes())
            rate = handle.getframerate()
    except (OSError, EOFError, wave.Error) as error:
        raise AudioError(f"{path}: not a readable WAV file ({error})") from None
    return np.frombuffer(frames, dtype="<i2").astype(np.float32) / 32768.0, rate


def to_int16(samples: np.ndarray) -> np.ndarray:
    """Float samples in [-1, 1] (clipped) as int16, the inverse of :func:`read_wav`'s scaling."""
    return np.clip(np.round(samples * 32768.0), -32768, 32767).astype("<i2")


def write_wav(path: str | os.PathLike[str], samples: np.ndarray, rate: int) -> None:
    """Write float samples in [-1, 1] (or int16) as a mono 16-bit WAV file.

    Raises :class:`AudioError` when it cannot, e.g. another c4pi process is writing
    the file (:func:`open_exclusive`): that file is left as it is."""
    data = samples if samples.dtype == np.int16 else to_int16(samples)
    try:
        with open_exclusive(path) as file, wave.open(file, "wb") as handle:
            handle.setnchannels(1)
            handle.setsampwidth(2)
            handle.setframerate(rate)
            handle.writeframes(data.astype("<i2").tobytes())
    except OSError as error:
        raise AudioError(f"cannot write {path}: {error.strerror or error}") from None


BUSY = "another c4pi process is writing it"


def open_exclusive(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for writing under an exclusive ``flock`` (held until it is closed),
    then emptied. When another open file holds the lock (another c4pi process writing
    it), raises ``OSError(EBUSY)`` without touching the file."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(fd, 0)
    except BlockingIOError:
        os.close(fd)
        raise OSError(errno.EBUSY, BUSY, str(path)) from None
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "wb")


def is_being_written(path: str | os.PathLike[str]) -> bool:
    """True when another open file holds ``path``'s lock (:func:`open_exclusive`)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False  # missing (or unreadable: then writing it fails with its own reason)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # releases the lock just taken
    return False
