"""Decision rules: one module per task family, each turning a specialist's output into a choice."""
