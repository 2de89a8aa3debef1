"""Vision: board markers, perspective warp, cell classifier, renderer."""
