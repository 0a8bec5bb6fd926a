"""INI files: [section] headers, key = value lines, '#' or ';' comment lines, and indented
lines that continue the previous value. Keys are case-insensitive."""

from __future__ import annotations

from typing import Optional

TRUE = {"1", "yes", "true", "on"}
FALSE = {"0", "no", "false", "off"}


class ConfigError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


def parse_ini(text: str) -> dict[str, dict[str, str]]:
    sections: dict[str, dict[str, str]] = {}
    current: Optional[dict[str, str]] = None
    last_key: Optional[str] = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if raw[0] in " \t" and last_key is not None and current is not None:
            current[last_key] += "\n" + line
        elif line.startswith("[") and line.endswith("]"):
            name = line[1:-1].strip()
            current = sections.setdefault(name, {})
            last_key = None
        elif "=" in line:
            if current is None:
                raise ConfigError(number, "key outside any section")
            key, value = line.split("=")
            last_key = key.strip().lower()
            current[last_key] = value.strip()
        else:
            raise ConfigError(number, f"cannot parse {line!r}")
    return sections


class Config:
    def __init__(self, text: str) -> None:
        self._sections = parse_ini(text)
        self._defaults = self._sections.pop("DEFAULT", {})

    def sections(self) -> list[str]:
        return list(self._sections)

    def get(self, section: str, key: str, default: Optional[str] = None) -> Optional[str]:
        """The value in `section`, else in [DEFAULT], else `default`."""
        values = self._sections.get(section, {})
        key = key.lower()
        if key in values:
            return values[key]
        return self._defaults.get(key, default)

    def getint(self, section: str, key: str, default: Optional[int] = None) -> Optional[int]:
        value = self.get(section, key)
        return default if value is None else int(value)

    def getbool(self, section: str, key: str, default: Optional[bool] = None) -> Optional[bool]:
        value = self.get(section, key)
        if value is None:
            return default
        if value.lower() in TRUE:
            return True
        if value.lower() in FALSE:
            return False
        raise ValueError(f"[{section}] {key}: not a boolean: {value!r}")

    def getlist(self, section: str, key: str) -> list[str]:
        """Comma- or newline-separated items."""
        value = self.get(section, key) or ""
        return [item.strip() for item in value.replace("\n", ",").split(",") if item.strip()]
