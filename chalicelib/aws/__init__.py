"""AWS plumbing: boto3 and botocore clients and their loading, item encoding, errors and
retries, the request deadline, logs, metrics, traces, batch responses, email and
schedules. Knows nothing of the domain."""
