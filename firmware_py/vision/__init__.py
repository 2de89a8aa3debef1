"""Vision: the board found by its markers, the top-down warp, the cell readers and
the decision (the frame generators live in :mod:`firmware_py.simtable`)."""
