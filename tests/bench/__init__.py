"""The benchmarks' own machinery: what they start is stopped however they end."""
