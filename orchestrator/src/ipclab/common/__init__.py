"""Common: what every stage may use (errors a user can fix, sizes and durations)."""
