"""``taiwa report``, ``taiwa leaderboard`` and ``taiwa compare``: what finished runs show.

One self-contained HTML page per set of run directories, and a table across runs. Knows no
method by name: each method package contributes its section (``Method.report``) and its terminal
tables (``Method.tables``), rendered here."""
