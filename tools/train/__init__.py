"""The cell classifier's training and data (``tools/train/README.md``)."""
