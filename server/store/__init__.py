"""The store: SQLAlchemy models, keyword-only repositories, the engine and the migrations glue."""
