"""Default intrinsics of the Raspberry Pi camera modules, for any output size.

A camera module's focal length (mm) and pixel size (µm) give its focal
length in sensor pixels; what reaches the frame is a rectangle of the sensor
(the sensor mode's field, cropped to the output's aspect ratio) scaled to
the output size. So, in output pixels::

    fx = fy = focal_mm / pixel_um * 1000 * output_width / crop_width
    cx, cy  = the output's centre (crops are centred on the optical axis)

On the Pi the crop is read from the running camera (picamera2's
``ScalerCrop``, in full-resolution sensor pixels, so binning and cropping are
accounted for whatever mode libcamera picked). Without a running camera
:func:`default_crop` predicts it: libcamera's mode choice for the output
size (the Raspberry Pi pipeline's scoring of size and aspect ratio), then the
centred crop of that mode with the output's aspect ratio.

Figures and their sources: ``docs/camera.md``. Lenses of the HQ and Global
Shutter cameras are interchangeable: their focal length comes from
``[camera] lens_focal_mm``.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

from firmware_py.frames import Intrinsics

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SensorMode:
    """A sensor readout: output size and the full-resolution rectangle it covers."""

    size: tuple[int, int]
    crop: tuple[int, int, int, int]  # x, y, width, height in full-resolution pixels


@dataclass(frozen=True)
class Sensor:
    """A camera module: its sensor, pixel size, fixed lens (0: interchangeable), modes."""

    module: str
    pixel_array: tuple[int, int]
    pixel_um: float
    focal_mm: float
    modes: tuple[SensorMode, ...]


def _centred(array: tuple[int, int], width: int, height: int) -> tuple[int, int, int, int]:
    return (array[0] - width) // 2, (array[1] - height) // 2, width, height


def _modes(array: tuple[int, int], *specs: tuple[int, int, int, int]) -> tuple[SensorMode, ...]:
    """Modes from (output width, height, covered width, height), centred on the array."""
    return tuple(SensorMode((w, h), _centred(array, cw, ch)) for w, h, cw, ch in specs)


IMX219 = (3280, 2464)
IMX708 = (4608, 2592)
IMX477 = (4056, 3040)
OV5647 = (2592, 1944)
IMX296 = (1456, 1088)
SENSORS: dict[str, Sensor] = {
    "imx219": Sensor("Camera Module 2", IMX219, 1.12, 3.04, _modes(
        IMX219, (640, 480, 1280, 960), (1640, 1232, 3280, 2464), (1920, 1080, 1920, 1080),
        (3280, 2464, 3280, 2464))),
    "imx708": Sensor("Camera Module 3", IMX708, 1.4, 4.74, _modes(
        IMX708, (1536, 864, 3072, 1728), (2304, 1296, 4608, 2592), (4608, 2592, 4608, 2592))),
    "imx708_wide": Sensor("Camera Module 3 Wide", IMX708, 1.4, 2.75, _modes(
        IMX708, (1536, 864, 3072, 1728), (2304, 1296, 4608, 2592), (4608, 2592, 4608, 2592))),
    "imx477": Sensor("HQ Camera", IMX477, 1.55, 0.0, _modes(
        IMX477, (1332, 990, 2664, 1980), (2028, 1080, 4056, 2160), (2028, 1520, 4056, 3040),
        (4056, 3040, 4056, 3040))),
    "ov5647": Sensor("Camera Module 1", OV5647, 1.4, 3.6, _modes(
        OV5647, (640, 480, 2560, 1920), (1296, 972, 2592, 1944), (1920, 1080, 1920, 1080),
        (2592, 1944, 2592, 1944))),
    "imx296": Sensor("Global Shutter Camera", IMX296, 3.45, 0.0, _modes(
        IMX296, (1456, 1088, 1456, 1088))),
}
ASPECT_PENALTY = 1500.0  # libcamera's Raspberry Pi pipeline weighs aspect ratio so


def sensor_for(model: str) -> Sensor | None:
    """The sensor of a libcamera model name (``imx708_wide_noir`` → the Wide one)."""
    name = model.lower().replace("_noir", "")
    return SENSORS.get(name)


def _format_score(desired: float, actual: float) -> float:
    score = desired - actual
    if score < 0:  # a larger mode than asked for costs less than a smaller one
        score = -score / 8
    return score * 2 if actual != desired else score


def choose_mode(sensor: Sensor, output: tuple[int, int]) -> SensorMode:
    """The mode libcamera's Raspberry Pi pipeline picks for an ``output`` (w, h) stream."""
    def score(mode: SensorMode) -> float:
        return (_format_score(output[0], mode.size[0]) + _format_score(output[1], mode.size[1])
                + ASPECT_PENALTY * _format_score(output[0] / output[1],
                                                 mode.size[0] / mode.size[1]))
    return min(sensor.modes, key=score)


def default_crop(sensor: Sensor, output: tuple[int, int]) -> tuple[int, int, int, int]:
    """The full-resolution rectangle an ``output`` stream shows: the chosen mode's field,
    centred and cut to the output's aspect ratio."""
    x, y, width, height = choose_mode(sensor, output).crop
    aspect = output[0] / output[1]
    if width / height > aspect:
        cut = round(height * aspect)
        return x + (width - cut) // 2, y, cut, height
    cut = round(width / aspect)
    return x, y + (height - cut) // 2, width, cut


def intrinsics_for(sensor: Sensor, output: tuple[int, int],
                   crop: tuple[int, int, int, int] | None = None,
                   focal_mm: float = 0.0) -> Intrinsics | None:
    """Intrinsics of ``sensor`` delivering ``output`` (w, h) from ``crop`` (default:
    :func:`default_crop`); ``focal_mm`` for a lens other than the module's (needed
    where the lens is interchangeable: None without it)."""
    focal_mm = focal_mm or sensor.focal_mm
    if focal_mm <= 0:
        return None
    x, y, width, height = crop or default_crop(sensor, output)
    focal_px = focal_mm / sensor.pixel_um * 1000.0
    scale_x, scale_y = output[0] / width, output[1] / height
    optical = (sensor.pixel_array[0] / 2, sensor.pixel_array[1] / 2)
    cx = (optical[0] - x) * scale_x - 0.5
    cy = (optical[1] - y) * scale_y - 0.5
    return Intrinsics(focal_px * scale_x, focal_px * scale_y, cx, cy)


def field_of_view_deg(intrinsics: Intrinsics, output: tuple[int, int]) -> float:
    """Horizontal field of view of ``intrinsics`` at ``output`` size."""
    return math.degrees(2 * math.atan(output[0] / 2 / intrinsics.fx))


def from_picamera2(camera: Any, output: tuple[int, int], focal_mm: float = 0.0
                   ) -> tuple[Intrinsics | None, str]:  # Any: picamera2 is untyped; keys optional
    """Intrinsics of a running ``Picamera2``, and what they are based on (for the log)."""
    properties = getattr(camera, "camera_properties", None) or {}
    model = str(properties.get("Model", ""))
    sensor = sensor_for(model)
    if sensor is None:
        return None, f"unknown sensor {model!r}: no default intrinsics (c4pi calibrate-camera)"
    crop = None
    try:
        crop = tuple(int(v) for v in camera.capture_metadata()["ScalerCrop"])
    except Exception as error:  # noqa: BLE001 - a camera without the metadata keeps the table
        log.debug("no ScalerCrop from the camera (%s): the crop is predicted", error)
    intrinsics = intrinsics_for(sensor, output, crop, focal_mm)  # type: ignore[arg-type]
    if intrinsics is None:
        return None, (f"{sensor.module} ({model}) has an interchangeable lens: set "
                      f"[camera] lens_focal_mm for default intrinsics")
    return intrinsics, (f"{sensor.module} ({model}) intrinsics fx={intrinsics.fx:.0f} "
                        f"fy={intrinsics.fy:.0f} cx={intrinsics.cx:.0f} cy={intrinsics.cy:.0f} "
                        f"(crop {crop or default_crop(sensor, output)})")
