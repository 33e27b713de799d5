"""Local stand-ins for remote services, for tests, benchmarks and trying winoscope offline."""
