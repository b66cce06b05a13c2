"""forumbot: the judge's assistant for forum killer/mafia games (版杀) on Discuz! boards."""

__version__ = "0.1.0"
