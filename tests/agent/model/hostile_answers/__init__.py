"""Hostile model answers, as data: one module per family, each with FAMILY and CASES (literals only,
read with `ast` by evaluation/hostile_answers/cases.py). Placeholders in answers and files:
{probe} a host path outside the workspace that must never appear, {outside} a host file outside
it holding the canary secret, {port} a host listener that must get no connection."""
