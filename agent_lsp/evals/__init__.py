"""The eval harness: suites of real tasks run against any endpoint, with figures a prompt change is judged by."""
