"""Command-line tools: seeding, the load test, the database benchmark, the admin and account commands."""
