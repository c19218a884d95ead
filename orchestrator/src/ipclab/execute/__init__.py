"""Execute: rounds of fresh peers, one case's round, the run directory. Peers measure; nothing
here computes a statistic: what a run decides by while it runs is analyse/reduce.py's."""
