"""Phone numbers as users type them, normalised to E.164."""

from phones.normalize import InvalidNumber, format_international, same_number, to_e164

__all__ = ["InvalidNumber", "format_international", "same_number", "to_e164"]
