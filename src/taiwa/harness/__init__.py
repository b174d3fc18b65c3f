"""Runs any method: the contract a method implements, the runner, and the run directory
(written by the runner, read back by :mod:`.run_reader`)."""
