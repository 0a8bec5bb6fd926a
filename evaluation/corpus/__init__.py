"""What the five corpora (cheats, escape, faults, hostile answers, hostile events) share: reading
their cases, keeping and printing their results, and running one of them from the command line.
A corpus plugs in with a `runner.Corpus`; evaluation/corpora.py names the five."""
