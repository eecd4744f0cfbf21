"""Lines that pass on what someone or something else says (``slm.passed_on``) or state how things are
(``slm.facts``) ask nothing; a piece beside them that turns to the assistant still asks (dev63, dev65,
session 37)."""

from __future__ import annotations

import pytest

from edgevox.agents.slm.facts import states_a_fact
from edgevox.agents.slm.passed_on import passed_on
from edgevox.agents.slm.remarks import asks_nothing


@pytest.mark.parametrize(("line", "why"), [
    ("Every night my husband says the living room's too dark for reading, every single night.", "passed on"),
    ("According to Mrs Kowalski next door, nineteen degrees is plenty for a house this size.", "passed on"),
    ("The kids were moaning at dinner that the music's never loud enough in here.", "passed on"),
    ("The heating's been at twenty all week, that's what the landlord wants.", "passed on"),
    ("Taylor Swift's new album drops Friday, apparently.", "passed on"),
    ("Instructions say leave the glue to set for twenty-four hours.", "read out"),
    ("It says simmer for twenty minutes, then stir in the cream.", "read out"),
    ("WhatsApp from the landlord: 'please keep the thermostat at eighteen while you're away'.", "read out"),
    ("Step four, bake at one-eighty for forty-five minutes or until golden.", "a recipe"),
    ("Our gas bill last winter was nearly a grand.", "a price"),
    ("Eggs are four fifty a dozen at the corner store now, it's ridiculous.", "a price"),
    ("Oat milk's on Ashleigh's list, not ours, she buys her own.", "another's list"),
    ("Saturday's meant to be gorgeous, so we'll do the barbecue.", "another day's weather"),
    ("The office is only about nine square metres, tiny really.", "how it is made"),
    ("My boss runs her heating at sixteen and just wears a fleece, mad woman.", "someone else's"),
    ("Uncle Ravi does the tandoori chicken forty-five minutes, turning it halfway.", "someone else's"),
    ("The office gets so much sun after lunch we barely need the lights in there at all.", "no need"),
    ("Toilet roll's, er, fine, there's a twelve-pack in the garage.", "enough already"),
    ("Fourteen minutes was too long for the scones last time, they came out a bit dark.", "the past"),
    ("Aoife said tomorrow's meant to be sunny in Dublin, twenty-two degrees, can you believe it.", "passed on"),
    ("Okay so it says, um, simmer for twenty minutes, then season to taste... sounds easy enough.", "read out"),
    ("No music after ten, the baby's room is right above the living room.", "a house rule"),
    ("Lights off by eleven on school nights, Arjun, that's the deal.", "a house rule"),
    ("Honestly, the heating in my office at work is set to twenty-six, everyone's half asleep.", "another place"),
    ("In our last flat the kitchen light was way brighter than this one.", "another place"),
    ("The bathroom light's on the same circuit as the extractor fan.", "how it is made"),
])
def test_words_from_elsewhere_or_a_fact_ask_nothing(line, why):
    assert (passed_on(line) or states_a_fact(line)) == why
    assert asks_nothing(line) == why


@pytest.mark.parametrize("line", [
    # a piece that turns to the assistant, beside the report (tuned call turns)
    "Recipe says simmer for twenty-five, so give us a timer for that and call it curry.",
    "The pasta packet says eleven minutes \u2014 set that, will you.",
    "Landlord says max twenty-one, so go on, set it to twenty-one then.",
    "Forty quid a week on gas... right, eighteen degrees, set it.",
    "My brother's moaning he can't hear anything, bump the volume up a bit.",
    "The bedroom's like a fridge, Dad says \u2014 whack the heating up to twenty-three.",
    "Turn it right down, mate, the neighbours are banging on the wall.",
    "The pasta's going in now and the packet says 11 minutes, so I'd be grateful for a nudge when it's done.",
    "Radio says it'll be bucketing down later, what's it actually doing out there now?",
    "Boil the kettle and put some Nina Simone on.",
    "No, I just said the kitchen, not the bedroom.",
    # typed requests about money open on their verb (BFCL simple_python_131, live_multiple_892)
    "Calculate the compound interest for an initial principal amount of $10000, with an annual interest rate of 5%.",
    "I like to send privately $100 to my friend Mary using my app balance",
    "Mix yellow and blue colors and adjust the lightness level to 60 percent.",
    # a device no tool serves is not a recipe: grounding names it ("Sorry, I can't control the oven.")
    "Preheat the oven to two hundred.",
    # the speaker is there now: a place for the weather (dev58)
    "No, sorry, not Dublin -- Kilkenny, I'm at my sister's.",
    "I need a pint of milk, stick it on the list.",
    "Add oat milk to Ashleigh's list as well.",
    "Tomorrow's going to be freezing, put the heating on now.",
    "What's tomorrow looking like?",
    "Oh, box says fifteen \u2014 cancel that one.",
    "Gran's recipe says fourteen minutes at two hundred, so set me fourteen minutes.",
    "Cool the house down to 18.",
    "We've got no milk left, add some to the list.",
    "I'll be in San Ramon and want to go to a salon.",
])
def test_a_piece_of_ones_own_still_asks(line):
    assert passed_on(line) is None
    assert states_a_fact(line) is None
