"""The day's values (``model``: posts, proxies, overrides, times in; verdicts, tally, counters, the day's
outcome out) and the pieces both day procedures share (``common``). The entry points (judge a day,
revotes, counters) are engine/judgement.py, exported by ``engine``; the procedures are the rule sets'
(engine/r001/day.py, engine/r004/day.py). This package imports nothing else of the engine."""
