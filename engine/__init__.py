"""The pure rules engine: state and actions in, events out. No I/O, no clock, no forumbot imports.

Night side and role rules (this package's modules other than day*, ballots, attendance, flags_day):

* ``rulesets``    — ``get_ruleset(name)``: R001, R000-GP, R000-G1, R000-G2, R004 (aliases, Chinese names);
  each has ``.id``, ``.day_procedure`` ("r001"/"r004") and ``.flags`` (its NightFlags defaults).
* ``roles``       — the role tables (name, Chinese name, camp, counting, labels, night skills, hooks).
* ``flags_night`` — ``NightFlags``: every night-side proposal of rules.md §h as a flag (metadata: amb, doc).
* ``state``       — ``GameState`` / ``Player`` (immutable) and ``state_to_dict`` / ``state_from_dict``.
* ``actions``     — night actions (Kill, Check, Protect, Snipe, …), ``Night``; ``action_to_dict`` / …
* ``night``       — ``check`` / ``submit`` / ``legal_targets`` / ``resolve_night`` / ``resolve_extra_check``.
* ``eliminations``— ``resolve_execution`` / ``resolve_drowning`` / ``send_off`` / ``resolve_red_cards`` /
  ``close_day`` / ``resolve_day`` / ``pass_authority`` / ``concede`` / ``surrender`` / ``end_game``;
  ``double_kill_pair``; counters (strikes, proxy votes, yellow cards).
* ``outcome``     — ``Outcome(termination, winner)`` and the win conditions in their documented order.
* ``presets`` / ``setup`` — ``parse_presets(toml_text)``, ``new_game``, ``draw_roles(..., seed=...)``.
* ``events``      — ``Event`` with its ``Audience`` (public / group / player / judge), ``Resolution``.
* ``history``     — ``Game``: a session with undo and replay. ``simulate`` — random legal play.
* ``errors``      — EngineError → IllegalActionError (GameOverError), UnknownRuleSetError, SetupError, …
"""
