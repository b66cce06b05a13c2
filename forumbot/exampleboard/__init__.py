"""A living example Discuz! X3.5 board: a scenario (users, forums, threads, posts, edits, deletions, PMs)
served on 127.0.0.1 as of a fake clock the test or demo moves, plus what the judge writes through it.

``model`` holds the scenario and what is visible at a moment, ``render`` the X3.5 markup, ``writes`` the
judge's writes and the board's answers to them, ``server`` the board itself
(:class:`~forumbot.exampleboard.server.LiveBoard`, on 127.0.0.1 or behind ``responses``). It is the only
simulated board: the demo, the runner and every test that needs a board use it.
"""
