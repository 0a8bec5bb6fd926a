"""Everything a language model does: providers (`llm/`), structured answers, prompts, context
fitting, the ReAct debugger and its tools, edit blocks, the generator, QA writers, memory.

May import `run`, `localize`, `repair`, `newtests` and the shared modules.
"""
