"""PynamoDB models, one module per table family. Table names come from TABLE_PREFIX."""
