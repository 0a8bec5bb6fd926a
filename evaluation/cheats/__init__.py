"""The cheat corpus: source patches that make failing tests look fixed without fixing anything,
proposed by a scripted model, and what selfheal did with each (tests/agent/cheats/)."""
