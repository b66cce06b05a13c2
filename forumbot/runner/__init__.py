"""Running a game on its timetable: the plan of moments (:mod:`.plan`), the ledger that records each moment
done exactly once (:mod:`.ledger`), and the tick that does what is due (:mod:`.tick`)."""
