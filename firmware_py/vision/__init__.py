"""Vision: the board found by its markers, the top-down warp, the cell readers and
the decision (the frames it is tested on are drawn by :mod:`firmware_py.simtable` and
the development tools' 3-D scene, ``tools/scene``)."""
