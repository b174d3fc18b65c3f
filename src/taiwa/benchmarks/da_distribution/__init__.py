"""The ``da-distribution`` method (seed 002): dialogue-act entropy (DAE) and mutual information
(DAMI) of a system's replies, from crowd-voted or classifier labels, and the consistency of the
ordering they give two systems (§3.3, §4, §5.1). The method class is not registered yet."""
