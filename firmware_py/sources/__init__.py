"""Frame sources: the Pi camera, OpenCV (webcam or video file), image folders, the simulator.

:func:`firmware_py.sources.factory.open_source` turns a source name (``[camera]
source`` or the ``watch`` argument) into a
:class:`~firmware_py.frames.FrameSource`.
"""
