"""Frame sources: Pi camera (fake picamera2), VideoCapture, image folder, reopening."""

from __future__ import annotations

import importlib.util

import cv2
import numpy as np
import pytest

from c4game.exc import CameraError
from firmware_py.config import CameraConfig
from firmware_py.frames import Frame, FrameSource, Intrinsics, check_image
from firmware_py.sources.folder import ImageFolderSource
from firmware_py.sources.opencv import VideoCaptureSource, parse_usb
from firmware_py.sources.picamera import PiCameraSource
from firmware_py.sources.reopen import ReopeningSource


def numbered(index: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    """A frame whose brightness encodes ``index`` (survives video compression)."""
    return np.full((size[1], size[0], 3), 20 + 30 * index, np.uint8)


def brightness_index(image: np.ndarray) -> int:
    return round((float(image.mean()) - 20) / 30)


# ------------------------------------------------------------------ picamera2


class FakePicamera2:
    def __init__(self, fail_start: bool = False, fail_capture: bool = False,
                 model: str = "", scaler_crop: tuple | None = None) -> None:
        self.calls: list = []
        self.fail_start, self.fail_capture = fail_start, fail_capture
        self.camera_properties = {"Model": model} if model else {}
        self.scaler_crop = scaler_crop

    def capture_metadata(self):
        if self.scaler_crop is None:
            raise RuntimeError("no metadata")
        return {"ScalerCrop": self.scaler_crop}

    def create_video_configuration(self, **kwargs):
        self.calls.append(("config", kwargs))
        return {"video": kwargs}

    def configure(self, config):
        self.calls.append(("configure", config))

    def start(self):
        if self.fail_start:
            raise RuntimeError("Camera __init__ sequence did not complete")
        self.calls.append(("start",))

    def capture_array(self, stream):
        if self.fail_capture:
            raise RuntimeError("dequeue timeout")
        self.calls.append(("capture", stream))
        return np.zeros((720, 1280, 3), np.uint8)

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))


def test_picamera_video_configuration_is_rgb888_at_the_configured_size_and_rate():
    fake = FakePicamera2()
    camera = CameraConfig(width=1280, height=720, fps=12.0)
    ticks = iter([5.0, 5.1])
    with PiCameraSource(camera, factory=lambda: fake, clock=lambda: next(ticks)) as source:
        first, second = source.read(), source.read()
    assert fake.calls[0] == ("config", {"main": {"size": (1280, 720), "format": "RGB888"},
                                        "controls": {"FrameRate": 12.0}, "buffer_count": 4})
    assert ("start",) in fake.calls and fake.calls[-2:] == [("stop",), ("close",)]
    assert (first.t, first.index, second.t, second.index) == (5.0, 0, 5.1, 1)
    assert first.image.shape == (720, 1280, 3)
    assert source.live and source.intrinsics is None


def test_picamera_start_failure_is_a_camera_error_and_closes():
    fake = FakePicamera2(fail_start=True)
    source = PiCameraSource(CameraConfig(), factory=lambda: fake)
    with pytest.raises(CameraError, match="cannot start the Pi camera at 1280x720 10 fps"):
        source.open()
    assert fake.calls[-2:] == [("stop",), ("close",)]


def test_picamera_capture_failure_is_a_camera_error():
    source = PiCameraSource(CameraConfig(), factory=lambda: FakePicamera2(fail_capture=True))
    source.open()
    with pytest.raises(CameraError, match="stopped delivering frames: dequeue timeout"):
        source.read()


@pytest.mark.skipif(importlib.util.find_spec("picamera2") is not None,
                    reason="picamera2 is installed here")
def test_picamera_missing_module_names_the_package():
    with pytest.raises(CameraError, match="python3-picamera2"):
        PiCameraSource(CameraConfig()).open()


def test_intrinsics_from_config():
    camera = CameraConfig(fx=900.0, fy=905.0, cx=640.0, cy=360.0, distortion=[0.1, -0.2, 0, 0])
    intrinsics = Intrinsics.from_config(camera)
    assert intrinsics == Intrinsics(900.0, 905.0, 640.0, 360.0, (0.1, -0.2, 0, 0))
    assert intrinsics.matrix().tolist() == [[900, 0, 640], [0, 905, 360], [0, 0, 1]]
    assert Intrinsics.from_config(CameraConfig(fx=900.0)) is None
    source = PiCameraSource(camera, factory=FakePicamera2)
    assert source.intrinsics == intrinsics


def test_a_pi_camera_module_gives_its_own_intrinsics_from_what_reaches_the_frame():
    """imx219 at 1280x720 runs its 1920x1080 centre crop: 3.04 mm / 1.12 um x 2/3."""
    fake = FakePicamera2(model="imx219", scaler_crop=(680, 692, 1920, 1080))
    with PiCameraSource(CameraConfig(), factory=lambda: fake) as source:
        intrinsics = source.intrinsics
    assert intrinsics.fx == pytest.approx(3.04 / 1.12e-3 * 1280 / 1920)
    assert intrinsics.fy == pytest.approx(intrinsics.fx)
    assert (intrinsics.cx, intrinsics.cy) == pytest.approx((639.5, 359.5))


def test_without_the_crop_metadata_the_mode_is_predicted():
    fake = FakePicamera2(model="imx708_wide_noir")
    with PiCameraSource(CameraConfig(width=1280, height=720), factory=lambda: fake) as source:
        intrinsics = source.intrinsics
    assert intrinsics.fx == pytest.approx(2.75 / 1.4e-3 * 1280 / 3072)  # the 1536x864 crop


def test_configured_intrinsics_win_and_an_hq_camera_needs_its_lens():
    configured = CameraConfig(fx=900.0, fy=900.0, cx=640.0, cy=360.0)
    fake = FakePicamera2(model="imx219")
    with PiCameraSource(configured, factory=lambda: fake) as source:
        assert source.intrinsics.fx == 900.0
    with PiCameraSource(CameraConfig(), factory=lambda: FakePicamera2(model="imx477")) as hq:
        assert hq.intrinsics is None
    lens = CameraConfig(lens_focal_mm=16.0)
    with PiCameraSource(lens, factory=lambda: FakePicamera2(model="imx477")) as hq:
        # the 2028x1080 mode covers 4056x2160; 16:9 of it is 3840 wide
        assert hq.intrinsics.fx == pytest.approx(16.0 / 1.55e-3 * 1280 / 3840)


# ------------------------------------------------------------------ VideoCapture


@pytest.fixture(scope="module")
def video_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("video") / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 7.0, (64, 48))
    assert writer.isOpened()
    for index in range(6):
        writer.write(numbered(index))
    writer.release()
    return path


def read_all(source: FrameSource) -> list[Frame]:
    frames = []
    with source:
        while (frame := source.read()) is not None:
            frames.append(frame)
    return frames


def test_video_file_uses_its_own_frame_rate(video_file):
    frames = read_all(VideoCaptureSource(str(video_file)))
    assert [brightness_index(f.image) for f in frames] == list(range(6))
    assert [f.t for f in frames] == pytest.approx([i / 7 for i in range(6)])
    assert [f.index for f in frames] == list(range(6))


def test_video_file_fps_override(video_file):
    source = VideoCaptureSource(str(video_file), fps=5.0)
    frames = read_all(source)
    assert source.fps == 5.0 and not source.live
    assert [f.t for f in frames] == pytest.approx([0, 0.2, 0.4, 0.6, 0.8, 1.0])


def test_missing_video_file_is_named(tmp_path):
    with pytest.raises(CameraError, match="video file '.*nope.mp4' does not exist"):
        VideoCaptureSource(str(tmp_path / "nope.mp4")).open()


def test_unreadable_video_file_is_named(tmp_path):
    bad = tmp_path / "notes.mp4"
    bad.write_text("not a video")
    with pytest.raises(CameraError, match="cannot open video file '.*notes.mp4'") as error:
        VideoCaptureSource(str(bad)).open()
    assert "ffmpeg -i" in str(error.value)  # the remedy: convert it


def test_ffmpeg_says_nothing_of_a_video_it_cannot_open(tmp_path):
    """The one line above is all a user sees: FFmpeg's own complaint ("moov atom not
    found") stays off stderr (a child process: FFmpeg's log level is read once)."""
    import subprocess
    import sys

    bad = tmp_path / "cut.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(2000))
    code = ("import sys; from firmware_py.sources.opencv import _default_capture; "
            "print(_default_capture(sys.argv[1]).isOpened())")
    done = subprocess.run([sys.executable, "-c", code, str(bad)], capture_output=True,
                          text=True, timeout=60, check=True)
    assert done.stdout.strip() == "False" and done.stderr == ""


class FakeCapture:
    def __init__(self, frames: int, opened: bool = True) -> None:
        self.left, self.opened, self.props = frames, opened, {}

    def isOpened(self):  # noqa: N802 - OpenCV's name
        return self.opened

    def set(self, prop, value):
        self.props[prop] = value
        return True

    def get(self, prop):
        return 0.0

    def read(self):
        if self.left <= 0:
            return False, None
        self.left -= 1
        return True, numbered(1)

    def release(self):
        self.opened = False


def test_webcam_is_live_configured_and_fails_loudly():
    capture = FakeCapture(frames=1)
    opened = []
    source = VideoCaptureSource("usb:2", size=(640, 480), camera_fps=15.0, clock=lambda: 42.0,
                                capture=lambda target: opened.append(target) or capture)
    source.open()
    assert opened == [2] and source.live and source.fps == 15.0
    assert capture.props == {cv2.CAP_PROP_FRAME_WIDTH: 640, cv2.CAP_PROP_FRAME_HEIGHT: 480,
                             cv2.CAP_PROP_FPS: 15.0}
    assert source.read().t == 42.0
    with pytest.raises(CameraError, match="webcam usb:2 delivered no frame"):
        source.read()


def test_webcam_that_does_not_open():
    source = VideoCaptureSource("usb:0", capture=lambda target: FakeCapture(0, opened=False))
    with pytest.raises(CameraError, match="cannot open webcam usb:0"):
        source.open()


def test_usb_spec_parsing():
    assert parse_usb("usb:0") == 0 and parse_usb("clip.mp4") is None
    with pytest.raises(CameraError, match="expected usb:N"):
        parse_usb("usb:front")


# ------------------------------------------------------------------ folder


def test_folder_natural_order_and_timeline(tmp_path):
    for index in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"frame{index}.png"), numbered(index % 7))
    (tmp_path / "README.txt").write_text("not a frame")
    source = ImageFolderSource(tmp_path, fps=4.0)
    frames = read_all(source)
    assert [brightness_index(f.image) for f in frames] == [1, 2, 3]  # 1, 2, 10 (10 % 7 = 3)
    assert [f.t for f in frames] == [0.0, 0.25, 0.5]


def test_folder_bad_image_is_named(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), numbered(0))
    (tmp_path / "b.jpg").write_bytes(b"garbage")
    source = ImageFolderSource(tmp_path)
    source.open()
    assert source.read().index == 0
    with pytest.raises(CameraError, match="cannot read image '.*b.jpg'"):
        source.read()


def test_folder_missing_or_empty(tmp_path):
    with pytest.raises(CameraError, match="does not exist"):
        ImageFolderSource(tmp_path / "none").open()
    with pytest.raises(CameraError, match="holds no images"):
        ImageFolderSource(tmp_path).open()


def test_check_image_converts_grey_and_four_channels():
    assert check_image(np.zeros((4, 5), np.uint8), "x").shape == (4, 5, 3)
    assert check_image(np.zeros((4, 5, 4), np.uint8), "x").shape == (4, 5, 3)
    with pytest.raises(CameraError, match="x: expected a uint8 image"):
        check_image(np.zeros((4, 5, 3), np.float32), "x")
    with pytest.raises(CameraError, match="expected an H x W x 3 image"):
        check_image(np.zeros((4, 5, 2), np.uint8), "x")


# ------------------------------------------------------------------ reopening


class FlakySource(FrameSource):
    """Fails to open ``open_failures`` times, then fails every ``fail_every`` reads."""

    def __init__(self, plan: list[str]) -> None:
        self.name, self.live, self.fps = "flaky", True, 10.0
        self.plan = list(plan)  # "open-fail", "read-fail", "frame", "end"
        self.opens = self.closes = 0
        self.is_open = False

    def open(self):
        if self.plan and self.plan[0] == "open-fail":
            self.plan.pop(0)
            raise CameraError("unplugged")
        self.opens += 1
        self.is_open = True

    def read(self):
        assert self.is_open
        step = self.plan.pop(0)
        if step == "read-fail":
            raise CameraError("lost")
        if step == "end":
            return None
        return Frame(numbered(0), 0.0, 0)

    def close(self):
        self.closes += 1
        self.is_open = False


def test_reopen_with_exponential_backoff_reset_after_a_frame():
    plan = ["open-fail", "open-fail", "open-fail", "open-fail", "frame", "read-fail",
            "frame", "end"]
    inner = FlakySource(plan)
    waits, failures = [], []
    source = ReopeningSource(inner, min_s=0.5, max_s=3.0, wait=lambda s: waits.append(s),
                             on_failure=lambda error, delay: failures.append(str(error)))
    frames = read_all(source)  # the first open fails inside open(): logged, no wait
    assert len(frames) == 2
    assert waits == [0.5, 1.0, 2.0, 0.5]
    assert failures == ["unplugged", "unplugged", "unplugged", "lost"]
    assert source.failures == 4


def test_backoff_is_capped():
    inner = FlakySource(["open-fail"] * 6 + ["end"])
    waits = []
    source = ReopeningSource(inner, min_s=1.0, max_s=4.0, wait=lambda s: waits.append(s))
    assert source.read() is None
    assert waits == [1.0, 2.0, 4.0, 4.0, 4.0, 4.0]


def test_stop_while_waiting_ends_the_stream():
    source = ReopeningSource(FlakySource(["open-fail"] * 3), wait=lambda s: True)
    assert source.read() is None


def test_strict_open_raises():
    source = ReopeningSource(FlakySource(["open-fail"]), strict_open=True)
    with pytest.raises(CameraError, match="unplugged"):
        source.open()


def test_bad_backoff_rejected():
    with pytest.raises(ValueError, match="backoff"):
        ReopeningSource(FlakySource([]), min_s=2.0, max_s=1.0)
