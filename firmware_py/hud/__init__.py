"""The kiosk screen: the HUD web page, its state and the annotated recordings."""
