B
past_value