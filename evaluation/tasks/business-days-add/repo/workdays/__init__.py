"""Working-day arithmetic."""

from workdays.calendar import add_business_days, business_days_between, due_date, is_business_day

__all__ = ["add_business_days", "business_days_between", "due_date", "is_business_day"]
