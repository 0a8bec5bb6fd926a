"""Read INI configuration files."""

from iniread.config import Config, ConfigError, parse_ini

__all__ = ["Config", "ConfigError", "parse_ini"]
