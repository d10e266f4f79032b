"""Domain rules: settings and their defaults, group-setting values, presence timing,
mentions, markdown, linkifiers, emoji, names, passwords, rate-limit rules, the SSRF
guard, webhook formats. They read no table and call no AWS service."""
