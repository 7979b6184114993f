"""What the chapters compute, one module per study; each takes plain data and returns a record."""
