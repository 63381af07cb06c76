import { Typography } from 'antd';
import type { NavigateFunction } from 'react-router';
import { feedback } from '../../../lib/feedback';
import i18n from '../../../lib/i18n';

/** The settings screen that lists the models some channel serves without a price or ratio. */
export const unpricedModelsEditorPath = '/setting?tab=operation&section=pricing&view=unset';

const shownModels = 20;

/**
 * After a channel save: the relay refuses models without a price or ratio (outside self-use mode), so
 * the admin is told which ones and given a link to the editor where they are priced.
 */
export function showUnpricedModelsNotice(models: string[], navigate: NavigateFunction): void {
  if (models.length === 0) return;
  const t = i18n.t.bind(i18n);
  const dialog = feedback.modal.warning({
    title: t('channels.unpriced.title', { count: models.length }),
    width: 520,
    okText: t('channels.unpriced.later'),
    content: (
      <div data-testid="unpriced-models">
        <Typography.Paragraph>{t('channels.unpriced.text')}</Typography.Paragraph>
        <Typography.Paragraph>
          {models.slice(0, shownModels).map((model) => (
            <Typography.Text key={model} code>
              {model}
            </Typography.Text>
          ))}
          {models.length > shownModels && t('channels.unpriced.more', { count: models.length - shownModels })}
        </Typography.Paragraph>
        <a
          href={unpricedModelsEditorPath}
          onClick={(event) => {
            event.preventDefault();
            dialog.destroy();
            navigate(unpricedModelsEditorPath);
          }}
        >
          {t('channels.unpriced.link')}
        </a>
      </div>
    ),
  });
}
