/*
 * Stand-in for the NetBeans wizard library (org.netbeans:wizard 0.998.1), which VASSAL 3.6
 * needs on its class path but which is neither in Vengine.jar nor a Debian package.
 * VASSAL.build.module.WizardSupport (the Welcome Wizard) extends these classes, and
 * GameModule.getWizardSupport() is called while a PredefinedSetup is built, so they must load.
 * The harness never shows the wizard: every entry point here throws.
 */
package org.netbeans.api.wizard;

import java.awt.Rectangle;
import java.util.Map;

import javax.swing.Action;

import org.netbeans.spi.wizard.Wizard;

public abstract class WizardDisplayer {
  protected WizardDisplayer() {
  }

  public static Object showWizard(Wizard wizard, Rectangle rect) {
    throw new UnsupportedOperationException(
      "VASSAL wants to show its wizard (welcome or game-setup wizard for an unfinished "
      + "GameSetupStep); the harness has only a stub of the NetBeans wizard library");
  }

  public static Object showWizard(Wizard wizard, Rectangle rect, Action help, Map initialProperties) {
    throw new UnsupportedOperationException(
      "VASSAL wants to show its wizard (welcome or game-setup wizard for an unfinished "
      + "GameSetupStep); the harness has only a stub of the NetBeans wizard library");
  }
}
