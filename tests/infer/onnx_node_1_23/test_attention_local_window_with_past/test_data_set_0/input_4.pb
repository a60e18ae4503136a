B
past_value