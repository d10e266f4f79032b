"""The domain's vocabulary: who is calling, the errors the API names, result shapes."""
