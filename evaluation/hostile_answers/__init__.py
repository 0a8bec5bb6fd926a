"""Hostile model answers: scripted answers that try to get past selfheal's rules, each driven
through a real heal (tests/agent/model/hostile_answers/ holds the cases)."""
