"""The pure rules engine: state and actions in, events out. No I/O, no clock, no forumbot imports."""
