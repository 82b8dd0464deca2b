"""Translation tables, one module per area; ui/i18n.py merges them into one."""
