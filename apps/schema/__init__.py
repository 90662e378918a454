"""Collections and their fields, defined at run time; field types validate, index and type every value."""
