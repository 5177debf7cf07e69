import { readFileSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

/** The Chromium the browser tests drive (the system's: `apt-get install -y chromium`). */
export const CHROMIUM = '/usr/bin/chromium'

/**
 * The Chromium features the tests turn off: Playwright's own (playwright-core 1.65's
 * `chromiumSwitches`), then the omnibox popups (plain and AI mode), which Chromium makes as WebUI
 * pages for the window of every browser context, in renderers of their own, though a headless test
 * never opens one: about a tenth of the browser tests' CPU. Chromium reads only the last
 * `--disable-features`, so this one repeats Playwright's; {@link launchChromium} checks that it
 * still does.
 */
const DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
  'WebUIOmniboxPopup',
  'WebUIOmniboxAimPopup',
]

/**
 * Launches headless Chromium for a test, without a GPU or background networking. Fails, naming
 * them, when the command line it was started with turns off features that its last
 * `--disable-features` (the one Chromium reads) leaves on: a Playwright that turns off more than
 * {@link DISABLED_FEATURES} lists.
 */
export async function launchChromium(options: { timeout?: number } = {}): Promise<Browser> {
  const browser = await chromium.launch({
    ...options,
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      `--disable-features=${DISABLED_FEATURES.join(',')}`,
    ],
  })
  try {
    const session = await browser.newBrowserCDPSession()
    const { processInfo } = await session.send('SystemInfo.getProcessInfo')
    await session.detach()
    const pid = processInfo.find((process) => process.type === 'browser')?.id
    if (pid === undefined) throw new Error('Chromium named no browser process')
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    const lists = args
      .filter((arg) => arg.startsWith('--disable-features='))
      .map((arg) => arg.slice('--disable-features='.length).split(','))
    const dropped = lists.flat().filter((feature) => !lists.at(-1)!.includes(feature))
    if (dropped.length > 0) {
      throw new Error(
        `Chromium was started with features off that its last --disable-features leaves on: ` +
          `${dropped.join(', ')}; add them to DISABLED_FEATURES in test/helpers/chromium.ts`,
      )
    }
  } catch (error) {
    await browser.close()
    throw error
  }
  return browser
}
