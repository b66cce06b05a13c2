"""Subcommands of the ``forumbot`` command. Each module has ``register(subparsers)``."""
