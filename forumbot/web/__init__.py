"""The judges' web desk (``forumbot serve``): a Flask app over the store and the desk.

Every read and write of game data goes through :mod:`forumbot.web.data`; the pure helpers
(:mod:`~forumbot.web.bbcode`, :mod:`~forumbot.web.diff`, :mod:`~forumbot.web.svg`) hold no state.
"""
