package dev.apkrelay.client.strategy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Defaults from spec section 4.4 ("Strategy behaviour") and 8 (reminder 3 hours), section 6 (actions). */
class StrategiesTest {
  @Test
  void defaultsAreTheSpecs() {
    Strategies s = new Strategies();
    assertEquals(Strategy.STATUS_BAR, s.name());
    assertEquals("New version of Demo", s.statusBar().getStatusBarTitle("Demo"));
    assertEquals("Click to Update", s.statusBar().getStatusBarDescription());
    assertEquals("Not Now", s.friendlyPopUp().getNotNowButton());
    assertEquals("Update", s.friendlyPopUp().getUpdateButton());
    assertEquals(10_800, s.friendlyPopUp().getReminderTimeInSeconds());
    assertEquals("Update", s.annoyingPopUp().getUpdateButton());
    assertEquals("com.example.app.svc.APPLY", CustomStrategy.applyAction("com.example.app"));
    assertEquals("com.example.app.svc.GIVEUP", CustomStrategy.giveupAction("com.example.app"));
    assertEquals(30_000, CustomStrategy.APPLY_PERIOD_MS);
  }

  @Test
  void settersCustomiseAndSurviveSwitches() {
    Strategies s = new Strategies();
    s.set(Strategy.FRIENDLY_POPUP);
    FriendlyPopUpStrategy f = (FriendlyPopUpStrategy) s.current();
    f.setPopUpMessage("Update?");
    f.setNotNowButton("Later");
    f.setReminderTimeInSeconds(60);
    s.set(Strategy.ANNOYING_POPUP);
    ((AnnoyingPopUpStrategy) s.current()).setUpdateButton("Now");
    s.set(Strategy.FRIENDLY_POPUP);
    assertSame(f, s.current());
    assertEquals("Update?", f.getPopUpMessage("Demo"));
    assertEquals("Later", f.getNotNowButton());
    assertEquals(60, f.getReminderTimeInSeconds());
    assertEquals("Now", s.annoyingPopUp().getUpdateButton());
    s.set(Strategy.CUSTOM);
    assertEquals(CustomStrategy.class, s.current().getClass());
  }

  @Test
  void badValuesAreRefused() {
    Strategies s = new Strategies();
    assertThrows(IllegalArgumentException.class, () -> s.set(null));
    assertThrows(IllegalArgumentException.class, () -> s.statusBar().setStatusBarTitle(""));
    assertThrows(IllegalArgumentException.class, () -> s.friendlyPopUp().setReminderTimeInSeconds(0));
    assertThrows(IllegalArgumentException.class, () -> s.annoyingPopUp().setPopUpMessage(null));
  }
}
