import { SearchOutlined } from '@ant-design/icons';
import { Button, Form, type FormProps } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

interface FilterFormProps<T> {
  initialValues?: FormProps<T>['initialValues'];
  onSearch: (values: T) => void;
  /** The filter fields (Form.Item each). */
  children: ReactNode;
  /** Buttons after the search button, inside the same row. */
  extra?: ReactNode;
}

/** The inline filter bar of the list screens: the fields, then the search button. */
export function FilterForm<T extends object>({ initialValues, onSearch, children, extra }: FilterFormProps<T>) {
  const { t } = useTranslation();
  return (
    <Form<T> layout="inline" initialValues={initialValues} onFinish={onSearch} style={{ rowGap: 8 }}>
      {children}
      <Form.Item>
        <Button type="primary" htmlType="submit" icon={<SearchOutlined />}>
          {t('common.search')}
        </Button>
      </Form.Item>
      {extra && <Form.Item>{extra}</Form.Item>}
    </Form>
  );
}

/** Options of a group filter: "all groups" (empty value) then each group. */
export const groupFilterOptions = (allLabel: string, groups: string[] | undefined) => [
  { value: '', label: allLabel },
  ...(groups ?? []).map((group) => ({ value: group, label: group })),
];
