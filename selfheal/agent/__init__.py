"""The heal engine: one heal, top to bottom, and one subpackage per stage of it.

Owns the loop (`loop`, `prepare`, `rounds`, `fixchoice`, `postrepair`, `modelrounds`, `modelrecord`,
`state`) and what every stage shares: `config`, `exceptions`, `events`, `verdict`. Stages, in order:
run, localize, repair, newtests, model, report; a stage imports only earlier ones and the shared
modules. May import `selfheal.sandbox`, never `bot`, `action` or `evaluation`.
"""
