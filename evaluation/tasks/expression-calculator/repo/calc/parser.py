"""Recursive-descent evaluation.

    expression := term (("+" | "-") term)*
    term       := factor (("*" | "/" | "%") factor)*
    factor     := "-" factor | power
    power      := primary ("**" factor)?
    primary    := number | name | name "(" arguments ")" | "(" expression ")"
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Optional

from calc.lexer import Token, tokenize

FUNCTIONS: dict[str, Callable[..., float]] = {"abs": abs, "max": max, "min": min, "sqrt": math.sqrt}


class CalcError(ValueError):
    pass


class Parser:
    def __init__(self, text: str, variables: Mapping[str, float]) -> None:
        try:
            self.tokens = tokenize(text)
        except SyntaxError as exc:
            raise CalcError(str(exc)) from None
        self.index = 0
        self.variables = variables

    def peek(self) -> Token:
        return self.tokens[self.index]

    def take(self, text: Optional[str] = None) -> Token:
        token = self.tokens[self.index]
        if text is not None and token.text != text:
            raise CalcError(f"expected {text!r} at {token.position}, found {token.text or 'end'!r}")
        self.index += 1
        return token

    def parse(self) -> float:
        value = self.expression()
        if self.peek().kind != "end":
            raise CalcError(f"unexpected {self.peek().text!r} at {self.peek().position}")
        return value

    def expression(self) -> float:
        value = self.term()
        if self.peek().text in ("+", "-"):
            op = self.take().text
            right = self.expression()
            value = value + right if op == "+" else value - right
        return value

    def term(self) -> float:
        value = self.factor()
        while self.peek().text in ("*", "/", "%"):
            op = self.take().text
            right = self.factor()
            if op != "*" and right == 0:
                raise CalcError("division by zero")
            if op == "*":
                value *= right
            elif op == "/":
                value /= right
            else:
                value %= right
        return value

    def factor(self) -> float:
        if self.peek().text == "-":
            self.take()
            return -self.factor()
        return self.power()

    def power(self) -> float:
        base = self.primary()
        if self.peek().text == "**":
            self.take()
            return base ** self.factor()
        return base

    def primary(self) -> float:
        token = self.take()
        if token.kind == "number":
            return float(token.text)
        if token.kind == "name":
            if self.peek().text == "(":
                return self.call(token)
            if token.text not in self.variables:
                raise CalcError(f"unknown variable {token.text!r}")
            return float(self.variables[token.text])
        if token.text == "(":
            value = self.expression()
            self.take(")")
            return value
        raise CalcError(f"unexpected {token.text or 'end'!r} at {token.position}")

    def call(self, name: Token) -> float:
        if name.text not in FUNCTIONS:
            raise CalcError(f"unknown function {name.text!r}")
        self.take("(")
        arguments = [self.expression()]
        while self.peek().text == ",":
            self.take()
            arguments.append(self.expression())
        self.take(")")
        return float(FUNCTIONS[name.text](*arguments))


def evaluate(text: str, variables: Optional[Mapping[str, float]] = None) -> float:
    """Evaluate an arithmetic expression: evaluate("2 * (x + 1)", {"x": 3}) == 8.0."""
    return Parser(text, variables or {}).parse()
