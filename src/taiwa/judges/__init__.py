"""LLM-as-a-judge, shared by any method (Zheng+ 2023, as seed 001 adapts it): it knows no
method by name.

- :mod:`taiwa.judges.prompts`: Japanese reference-guided judge prompts, single (``[[N]]``)
  and pairwise (``[[A]]`` / ``[[B]]`` / ``[[C]]``), exported as constants (``PROMPTS``).
- :mod:`taiwa.judges.verdicts`: reading ratings and verdicts; what a position-swapped pair of
  verdicts means.
- :mod:`taiwa.judges.stages`: ``SingleJudge`` and ``PairwiseJudge`` (both orders), stages for
  the runner with the ``judge`` role.
- :mod:`taiwa.judges.analysis`: win-rate matrix, overall win rates, the judge's order-flip
  rate, unparsed shares, rating histogram, agreement with human ranks (imports numpy: import
  it inside a method's ``aggregate``).
"""
