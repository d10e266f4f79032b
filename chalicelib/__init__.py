"""teamchat: a threaded team-chat server on API Gateway, Lambda and DynamoDB."""
