B
past_state